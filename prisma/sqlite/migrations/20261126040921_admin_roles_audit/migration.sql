-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "source" TEXT NOT NULL,
    "actorId" TEXT,
    "actorName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "targetLabel" TEXT,
    "detail" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "AuditEntry_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "username" TEXT NOT NULL,
    "displayUsername" TEXT NOT NULL,
    "email" TEXT,
    "passwordHash" TEXT,
    "nickname" TEXT,
    "bio" TEXT,
    "avatarKey" TEXT,
    "bannerKey" TEXT,
    "theme" TEXT,
    "plan" TEXT NOT NULL DEFAULT 'free',
    "suspended" BOOLEAN NOT NULL DEFAULT false,
    "suspendedAt" DATETIME,
    "verified" BOOLEAN NOT NULL DEFAULT false,
    "staff" BOOLEAN NOT NULL DEFAULT false,
    "partner" BOOLEAN NOT NULL DEFAULT false,
    "translator" BOOLEAN NOT NULL DEFAULT false,
    "bugHunterTier" INTEGER NOT NULL DEFAULT 0,
    "role" TEXT NOT NULL DEFAULT 'user',
    "linkDomain" TEXT,
    "quotaOverride" BIGINT,
    "priorityMinutes" INTEGER,
    "priorityResetAt" DATETIME,
    "followerCount" INTEGER NOT NULL DEFAULT 0,
    "followingCount" INTEGER NOT NULL DEFAULT 0,
    "uploadCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
-- The unused isAdmin flag becomes the role (docs/admin.md): an admin stays an admin.
INSERT INTO "new_User" ("avatarKey", "bannerKey", "bio", "bugHunterTier", "createdAt", "displayUsername", "email", "followerCount", "followingCount", "id", "linkDomain", "nickname", "partner", "passwordHash", "plan", "priorityMinutes", "priorityResetAt", "quotaOverride", "role", "staff", "suspended", "suspendedAt", "theme", "translator", "updatedAt", "uploadCount", "username", "verified") SELECT "avatarKey", "bannerKey", "bio", "bugHunterTier", "createdAt", "displayUsername", "email", "followerCount", "followingCount", "id", "linkDomain", "nickname", "partner", "passwordHash", "plan", "priorityMinutes", "priorityResetAt", "quotaOverride", CASE WHEN "isAdmin" THEN 'admin' ELSE 'user' END, "staff", "suspended", "suspendedAt", "theme", "translator", "updatedAt", "uploadCount", "username", "verified" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE UNIQUE INDEX "User_username_key" ON "User"("username");
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");
CREATE UNIQUE INDEX "User_linkDomain_key" ON "User"("linkDomain");
CREATE INDEX "User_createdAt_idx" ON "User"("createdAt");
CREATE INDEX "User_role_idx" ON "User"("role");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "AuditEntry_createdAt_id_idx" ON "AuditEntry"("createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_targetType_targetId_idx" ON "AuditEntry"("targetType", "targetId");
