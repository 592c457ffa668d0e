-- AlterTable
ALTER TABLE "User" ADD COLUMN     "defaultPrivacy" TEXT;

-- CreateTable
CREATE TABLE "Setting" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "InstanceSetup" (
    "id" INTEGER NOT NULL,
    "adminId" TEXT NOT NULL,
    "completedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InstanceSetup_pkey" PRIMARY KEY ("id")
);

-- Every instance learns of a setting changed anywhere within a second (lib/settings/stored.ts
-- re-reads the table when the change number moves, lib/db/change-signal.ts).
CREATE TRIGGER "Setting_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Setting" FOR EACH STATEMENT EXECUTE FUNCTION mediahost_notify_change();
