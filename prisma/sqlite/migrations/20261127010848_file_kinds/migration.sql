-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_File" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "postId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "storageKey" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "mimeType" TEXT NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "duration" REAL,
    "thumbnailKey" TEXT,
    "priority" BOOLEAN NOT NULL DEFAULT false,
    "streamState" TEXT,
    "streamKey" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "kind" TEXT NOT NULL DEFAULT 'media',
    "language" TEXT,
    CONSTRAINT "File_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_File" ("createdAt", "duration", "height", "id", "index", "mimeType", "name", "postId", "priority", "size", "storageKey", "streamKey", "streamState", "thumbnailKey", "width") SELECT "createdAt", "duration", "height", "id", "index", "mimeType", "name", "postId", "priority", "size", "storageKey", "streamKey", "streamState", "thumbnailKey", "width" FROM "File";
DROP TABLE "File";
ALTER TABLE "new_File" RENAME TO "File";
CREATE UNIQUE INDEX "File_storageKey_key" ON "File"("storageKey");
CREATE INDEX "File_postId_index_idx" ON "File"("postId", "index");
CREATE UNIQUE INDEX "File_postId_name_key" ON "File"("postId", "name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
