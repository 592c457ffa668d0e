-- AlterTable
ALTER TABLE "Post" ADD COLUMN "expiresAt" DATETIME;
ALTER TABLE "Post" ADD COLUMN "maxViews" INTEGER;
ALTER TABLE "Post" ADD COLUMN "passwordHash" TEXT;

-- CreateIndex
CREATE INDEX "Post_expiresAt_idx" ON "Post"("expiresAt");
