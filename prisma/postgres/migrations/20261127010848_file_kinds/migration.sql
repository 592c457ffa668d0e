-- AlterTable
ALTER TABLE "File" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'media',
ADD COLUMN     "language" TEXT;
