-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "expiresAt" TIMESTAMP(3),
ADD COLUMN     "maxViews" INTEGER,
ADD COLUMN     "passwordHash" TEXT;

-- CreateIndex
CREATE INDEX "Post_expiresAt_idx" ON "Post"("expiresAt");
