-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PostWord" (
    "word" TEXT NOT NULL,
    "postId" TEXT NOT NULL,
    "postCreatedAt" DATETIME NOT NULL,
    "publicGif" BOOLEAN NOT NULL DEFAULT false,

    PRIMARY KEY ("word", "postId"),
    CONSTRAINT "PostWord_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_PostWord" ("postCreatedAt", "postId", "word") SELECT "postCreatedAt", "postId", "word" FROM "PostWord";
DROP TABLE "PostWord";
ALTER TABLE "new_PostWord" RENAME TO "PostWord";
CREATE INDEX "PostWord_publicGif_word_postCreatedAt_postId_idx" ON "PostWord"("publicGif", "word", "postCreatedAt", "postId");
CREATE INDEX "PostWord_postId_word_idx" ON "PostWord"("postId", "word");
-- Added by hand: rows written before the column existed.
UPDATE "PostWord" SET "publicGif" = 1
 WHERE "postId" IN (SELECT "id" FROM "Post" WHERE "firstFileGif" = 1 AND "privacy" = 'public');
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
