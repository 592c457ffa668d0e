-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_TusUpload" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "surface" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "teamId" TEXT,
    "length" BIGINT NOT NULL,
    "offset" BIGINT NOT NULL DEFAULT 0,
    "metadata" TEXT NOT NULL,
    "chunks" TEXT NOT NULL DEFAULT '[]',
    "windowStart" DATETIME NOT NULL,
    "reservedBytes" BIGINT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'receiving',
    "postCode" TEXT,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockToken" TEXT,
    "lockedUntil" DATETIME,
    "folderId" TEXT,
    CONSTRAINT "TusUpload_folderId_fkey" FOREIGN KEY ("folderId") REFERENCES "Folder" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_TusUpload" ("chunks", "createdAt", "expiresAt", "id", "length", "lockToken", "lockedUntil", "metadata", "offset", "postCode", "reservedBytes", "state", "subject", "surface", "teamId", "userId", "windowStart") SELECT "chunks", "createdAt", "expiresAt", "id", "length", "lockToken", "lockedUntil", "metadata", "offset", "postCode", "reservedBytes", "state", "subject", "surface", "teamId", "userId", "windowStart" FROM "TusUpload";
DROP TABLE "TusUpload";
ALTER TABLE "new_TusUpload" RENAME TO "TusUpload";
CREATE INDEX "TusUpload_expiresAt_idx" ON "TusUpload"("expiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
