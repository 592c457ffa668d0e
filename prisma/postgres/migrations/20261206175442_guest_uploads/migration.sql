-- AlterTable
ALTER TABLE "Folder" ADD COLUMN     "guestBytes" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "guestExpiresAt" TIMESTAMP(3),
ADD COLUMN     "guestFiles" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "guestMaxBytes" BIGINT,
ADD COLUMN     "guestMaxFileBytes" BIGINT,
ADD COLUMN     "guestMaxFiles" INTEGER,
ADD COLUMN     "guestPasswordHash" TEXT,
ADD COLUMN     "guestUploads" BOOLEAN NOT NULL DEFAULT false;
