-- CreateTable
CREATE TABLE "PendingUpload" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "keys" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "windowStart" DATETIME NOT NULL,
    "bytes" BIGINT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "PendingUpload_owner_idx" ON "PendingUpload"("owner");
