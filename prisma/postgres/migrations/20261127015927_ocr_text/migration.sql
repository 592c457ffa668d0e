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
CREATE TABLE "SearchWord" (
    "word" TEXT NOT NULL,
    "postId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "fileId" TEXT,
    "postCreatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SearchWord_pkey" PRIMARY KEY ("word","postId","source")
);

-- CreateIndex
CREATE INDEX "SearchWord_postId_word_idx" ON "SearchWord"("postId", "word");

-- CreateIndex
CREATE INDEX "SearchWord_fileId_idx" ON "SearchWord"("fileId");

-- AddForeignKey
ALTER TABLE "FileText" ADD CONSTRAINT "FileText_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SearchWord" ADD CONSTRAINT "SearchWord_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SearchWord" ADD CONSTRAINT "SearchWord_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The owner's search reads every searchable word from SearchWord: existing posts' title and
-- description words are copied in (docs/ocr.md).
INSERT INTO "SearchWord" ("word", "postId", "source", "fileId", "postCreatedAt")
SELECT "word", "postId", '', NULL, "postCreatedAt" FROM "PostWord";
