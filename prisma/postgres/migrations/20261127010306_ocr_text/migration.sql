-- CreateTable
CREATE TABLE "FileText" (
    "fileId" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FileText_pkey" PRIMARY KEY ("fileId")
);

-- CreateTable
CREATE TABLE "FileTextWord" (
    "word" TEXT NOT NULL,
    "fileId" TEXT NOT NULL,
    "postId" TEXT NOT NULL,
    "postCreatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FileTextWord_pkey" PRIMARY KEY ("word","fileId")
);

-- CreateIndex
CREATE INDEX "FileTextWord_postId_word_idx" ON "FileTextWord"("postId", "word");

-- CreateIndex
CREATE INDEX "FileTextWord_fileId_idx" ON "FileTextWord"("fileId");

-- AddForeignKey
ALTER TABLE "FileText" ADD CONSTRAINT "FileText_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FileTextWord" ADD CONSTRAINT "FileTextWord_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FileTextWord" ADD CONSTRAINT "FileTextWord_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;
