-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Post" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "code" TEXT NOT NULL,
    "userId" TEXT,
    "teamId" TEXT,
    "privacy" TEXT NOT NULL DEFAULT 'private',
    "title" TEXT,
    "description" TEXT,
    "moderated" BOOLEAN NOT NULL DEFAULT false,
    "restricted" BOOLEAN NOT NULL DEFAULT false,
    "draft" BOOLEAN NOT NULL DEFAULT false,
    "priority" BOOLEAN NOT NULL DEFAULT false,
    "firstFileGif" BOOLEAN NOT NULL DEFAULT false,
    "fileCount" INTEGER NOT NULL DEFAULT 0,
    "viewCount" INTEGER NOT NULL DEFAULT 0,
    "likeCount" INTEGER NOT NULL DEFAULT 0,
    "commentCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "discoverScore" REAL NOT NULL DEFAULT 0,
    CONSTRAINT "Post_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Post_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Post" ("code", "commentCount", "createdAt", "description", "draft", "fileCount", "firstFileGif", "id", "likeCount", "moderated", "priority", "privacy", "restricted", "teamId", "title", "updatedAt", "userId", "viewCount") SELECT "code", "commentCount", "createdAt", "description", "draft", "fileCount", "firstFileGif", "id", "likeCount", "moderated", "priority", "privacy", "restricted", "teamId", "title", "updatedAt", "userId", "viewCount" FROM "Post";
DROP TABLE "Post";
ALTER TABLE "new_Post" RENAME TO "Post";
CREATE UNIQUE INDEX "Post_code_key" ON "Post"("code");
CREATE INDEX "Post_userId_createdAt_id_idx" ON "Post"("userId", "createdAt", "id");
CREATE INDEX "Post_teamId_createdAt_id_idx" ON "Post"("teamId", "createdAt", "id");
CREATE INDEX "Post_firstFileGif_privacy_createdAt_id_idx" ON "Post"("firstFileGif", "privacy", "createdAt", "id");
CREATE INDEX "Post_privacy_createdAt_id_idx" ON "Post"("privacy", "createdAt", "id");
CREATE INDEX "Post_privacy_discoverScore_idx" ON "Post"("privacy", "discoverScore");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
