-- AlterTable
ALTER TABLE "User" ADD COLUMN "defaultDomain" TEXT;

-- AlterTable
ALTER TABLE "Post" ADD COLUMN "domain" TEXT;
