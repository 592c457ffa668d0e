-- AlterTable
ALTER TABLE "TusUpload" ADD COLUMN "lockToken" TEXT;
ALTER TABLE "TusUpload" ADD COLUMN "lockedUntil" DATETIME;
