-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "key" TEXT,
ADD COLUMN     "lockedBy" TEXT,
ADD COLUMN     "lockedUntil" TIMESTAMP(3),
ADD COLUMN     "maxAttempts" INTEGER NOT NULL DEFAULT 4;

-- CreateIndex
CREATE UNIQUE INDEX "Job_key_key" ON "Job"("key");
