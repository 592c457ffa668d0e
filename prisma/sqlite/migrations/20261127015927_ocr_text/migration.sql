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
CREATE TABLE "SearchWord" (
    "word" TEXT NOT NULL,
    "postId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "fileId" TEXT,
    "postCreatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("word", "postId", "source"),
    CONSTRAINT "SearchWord_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SearchWord_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "SearchWord_postId_word_idx" ON "SearchWord"("postId", "word");

-- CreateIndex
CREATE INDEX "SearchWord_fileId_idx" ON "SearchWord"("fileId");

-- The owner's search reads every searchable word from SearchWord: existing posts' title and
-- description words are copied in (docs/ocr.md).
INSERT INTO "SearchWord" ("word", "postId", "source", "fileId", "postCreatedAt")
SELECT "word", "postId", '', NULL, "postCreatedAt" FROM "PostWord";
