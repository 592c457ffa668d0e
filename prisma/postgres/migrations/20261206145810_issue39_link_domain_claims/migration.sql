-- DropIndex
DROP INDEX "User_linkDomain_key";

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "provenLinkDomain" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "User_provenLinkDomain_key" ON "User"("provenLinkDomain");

-- CreateIndex
CREATE INDEX "User_linkDomain_idx" ON "User"("linkDomain");

-- Domains already proven keep their place (issue 39 §4).
UPDATE "User" SET "provenLinkDomain" = "linkDomain" WHERE "linkDomain" IS NOT NULL AND "linkDomainVerifiedAt" IS NOT NULL;
