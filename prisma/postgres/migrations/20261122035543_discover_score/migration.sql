-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "discoverScore" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Post_privacy_discoverScore_idx" ON "Post"("privacy", "discoverScore");
