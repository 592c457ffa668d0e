-- AlterTable
ALTER TABLE "TusUpload" ADD COLUMN     "folderId" TEXT;

-- AddForeignKey
ALTER TABLE "TusUpload" ADD CONSTRAINT "TusUpload_folderId_fkey" FOREIGN KEY ("folderId") REFERENCES "Folder"("id") ON DELETE SET NULL ON UPDATE CASCADE;
