-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Folder" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "code" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "privacy" TEXT NOT NULL DEFAULT 'private',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "guestUploads" BOOLEAN NOT NULL DEFAULT false,
    "guestPasswordHash" TEXT,
    "guestMaxFileBytes" BIGINT,
    "guestMaxFiles" INTEGER,
    "guestMaxBytes" BIGINT,
    "guestExpiresAt" DATETIME,
    "guestFiles" INTEGER NOT NULL DEFAULT 0,
    "guestBytes" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "Folder_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Folder" ("code", "createdAt", "id", "name", "nameKey", "privacy", "updatedAt", "userId") SELECT "code", "createdAt", "id", "name", "nameKey", "privacy", "updatedAt", "userId" FROM "Folder";
DROP TABLE "Folder";
ALTER TABLE "new_Folder" RENAME TO "Folder";
CREATE UNIQUE INDEX "Folder_code_key" ON "Folder"("code");
CREATE INDEX "Folder_userId_createdAt_id_idx" ON "Folder"("userId", "createdAt", "id");
CREATE UNIQUE INDEX "Folder_userId_nameKey_key" ON "Folder"("userId", "nameKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
