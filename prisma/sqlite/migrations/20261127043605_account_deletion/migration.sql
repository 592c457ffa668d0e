-- AlterTable
ALTER TABLE "User" ADD COLUMN "deletingAt" DATETIME;
ALTER TABLE "User" ADD COLUMN "deletingBy" TEXT;

-- CreateIndex
CREATE INDEX "User_deletingAt_idx" ON "User"("deletingAt");
