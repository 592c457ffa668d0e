-- AlterTable
ALTER TABLE "User" ADD COLUMN     "embedStyle" TEXT;
