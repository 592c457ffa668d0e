-- CreateTable
CREATE TABLE "FileText" (
    "fileId" TEXT NOT NULL PRIMARY KEY,
    "language" TEXT NOT NULL,
    "confidence" REAL NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "FileText_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "FileTextWord" (
    "word" TEXT NOT NULL,
    "fileId" TEXT NOT NULL,
    "postId" TEXT NOT NULL,
    "postCreatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("word", "fileId"),
    CONSTRAINT "FileTextWord_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "FileTextWord_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "FileTextWord_postId_word_idx" ON "FileTextWord"("postId", "word");

-- CreateIndex
CREATE INDEX "FileTextWord_fileId_idx" ON "FileTextWord"("fileId");
