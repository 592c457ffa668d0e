-- CreateTable
CREATE TABLE "TusUpload" (
    "id" TEXT NOT NULL,
    "surface" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "teamId" TEXT,
    "length" BIGINT NOT NULL,
    "offset" BIGINT NOT NULL DEFAULT 0,
    "metadata" TEXT NOT NULL,
    "chunks" TEXT NOT NULL DEFAULT '[]',
    "windowStart" TIMESTAMP(3) NOT NULL,
    "reservedBytes" BIGINT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'receiving',
    "postCode" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TusUpload_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TusUpload_expiresAt_idx" ON "TusUpload"("expiresAt");
