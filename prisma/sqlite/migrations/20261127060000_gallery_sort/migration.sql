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
    "totalSize" BIGINT NOT NULL DEFAULT 0,
    "sortName" TEXT NOT NULL DEFAULT '',
    "appId" TEXT,
    "expiresAt" DATETIME,
    "maxViews" INTEGER,
    "passwordHash" TEXT,
    CONSTRAINT "Post_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Post_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Post" ("appId", "code", "commentCount", "createdAt", "description", "discoverScore", "draft", "expiresAt", "fileCount", "firstFileGif", "id", "likeCount", "maxViews", "moderated", "passwordHash", "priority", "privacy", "restricted", "teamId", "title", "updatedAt", "userId", "viewCount") SELECT "appId", "code", "commentCount", "createdAt", "description", "discoverScore", "draft", "expiresAt", "fileCount", "firstFileGif", "id", "likeCount", "maxViews", "moderated", "passwordHash", "priority", "privacy", "restricted", "teamId", "title", "updatedAt", "userId", "viewCount" FROM "Post";
DROP TABLE "Post";
ALTER TABLE "new_Post" RENAME TO "Post";
CREATE UNIQUE INDEX "Post_code_key" ON "Post"("code");
CREATE INDEX "Post_userId_createdAt_id_idx" ON "Post"("userId", "createdAt", "id");
CREATE INDEX "Post_teamId_createdAt_id_idx" ON "Post"("teamId", "createdAt", "id");
CREATE INDEX "Post_userId_totalSize_id_idx" ON "Post"("userId", "totalSize", "id");
CREATE INDEX "Post_userId_viewCount_id_idx" ON "Post"("userId", "viewCount", "id");
CREATE INDEX "Post_userId_sortName_id_idx" ON "Post"("userId", "sortName", "id");
CREATE INDEX "Post_firstFileGif_privacy_createdAt_id_idx" ON "Post"("firstFileGif", "privacy", "createdAt", "id");
CREATE INDEX "Post_privacy_createdAt_id_idx" ON "Post"("privacy", "createdAt", "id");
CREATE INDEX "Post_privacy_discoverScore_idx" ON "Post"("privacy", "discoverScore");
CREATE INDEX "Post_expiresAt_idx" ON "Post"("expiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Added by hand: the sort keys of posts written before the columns existed. The bytes are
-- exact. The name is the title, else the first file's name, lower-cased by the database
-- (SQLite folds ASCII letters only) and cut to 64 characters: lib/posts/sort-keys.ts also
-- folds accents, which SQL cannot do alike on both databases, so an older post with an
-- accented name sorts by this approximation until its title changes (docs/gallery-sort.md).
UPDATE "Post" SET
  "totalSize" = COALESCE((SELECT SUM("File"."size") FROM "File" WHERE "File"."postId" = "Post"."id"), 0),
  "sortName" = lower(substr(COALESCE("Post"."title", (SELECT "File"."name" FROM "File" WHERE "File"."postId" = "Post"."id" ORDER BY "File"."index" LIMIT 1), ''), 1, 64));
