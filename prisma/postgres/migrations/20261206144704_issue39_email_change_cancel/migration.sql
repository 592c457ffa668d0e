-- AlterTable
ALTER TABLE "EmailChange" ADD COLUMN     "cancelTokenHash" TEXT,
ADD COLUMN     "oldEmail" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "EmailChange_cancelTokenHash_key" ON "EmailChange"("cancelTokenHash");
