-- CreateTable
CREATE TABLE "TusUpload" (
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "TusUpload_expiresAt_idx" ON "TusUpload"("expiresAt");
