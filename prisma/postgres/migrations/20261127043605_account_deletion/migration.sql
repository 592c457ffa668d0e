-- AlterTable
ALTER TABLE "User" ADD COLUMN     "deletingAt" TIMESTAMP(3),
ADD COLUMN     "deletingBy" TEXT;

-- CreateIndex
CREATE INDEX "User_deletingAt_idx" ON "User"("deletingAt");
