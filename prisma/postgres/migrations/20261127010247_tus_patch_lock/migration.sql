-- AlterTable
ALTER TABLE "TusUpload" ADD COLUMN     "lockToken" TEXT,
ADD COLUMN     "lockedUntil" TIMESTAMP(3);
