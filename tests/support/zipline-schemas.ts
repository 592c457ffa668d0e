/**
 * Zipline's PostgreSQL tables as its Prisma migrations create them (the columns the import
 * reads and those a row needs): v4 from its 2024-12-28 `init` migration, v3.7 after the
 * January 2023 renames. For the import tests (tests/imports/zipline.test.ts, s3.test.ts).
 */
export const V4_TABLES = `
CREATE TYPE "Role" AS ENUM ('USER', 'ADMIN', 'SUPERADMIN');
CREATE TABLE "Zipline" ("id" TEXT NOT NULL PRIMARY KEY, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL, "firstSetup" BOOLEAN NOT NULL DEFAULT true, "coreTempDirectory" TEXT NOT NULL,
  "filesRoute" TEXT NOT NULL DEFAULT '/u', "filesLength" INTEGER NOT NULL DEFAULT 6, "urlsRoute" TEXT NOT NULL DEFAULT '/go');
CREATE TABLE "User" ("id" TEXT NOT NULL PRIMARY KEY, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL, "username" TEXT NOT NULL UNIQUE, "password" TEXT, "avatar" TEXT, "token" TEXT NOT NULL UNIQUE,
  "role" "Role" NOT NULL DEFAULT 'USER', "view" JSONB NOT NULL DEFAULT '{}', "totpSecret" TEXT, "sessions" TEXT[]);
CREATE TABLE "Folder" ("id" TEXT NOT NULL PRIMARY KEY, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL, "name" TEXT NOT NULL, "public" BOOLEAN NOT NULL DEFAULT false,
  "userId" TEXT NOT NULL REFERENCES "User"("id") ON DELETE CASCADE);
CREATE TABLE "File" ("id" TEXT NOT NULL PRIMARY KEY, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL, "deletesAt" TIMESTAMP(3), "name" TEXT NOT NULL, "originalName" TEXT, "size" BIGINT NOT NULL,
  "type" TEXT NOT NULL, "views" INTEGER NOT NULL DEFAULT 0, "maxViews" INTEGER, "favorite" BOOLEAN NOT NULL DEFAULT false,
  "password" TEXT, "userId" TEXT REFERENCES "User"("id") ON DELETE SET NULL, "folderId" TEXT REFERENCES "Folder"("id") ON DELETE SET NULL);
CREATE TABLE "Url" ("id" TEXT NOT NULL PRIMARY KEY, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL, "code" TEXT NOT NULL, "vanity" TEXT, "destination" TEXT NOT NULL, "views" INTEGER NOT NULL DEFAULT 0,
  "maxViews" INTEGER, "password" TEXT, "userId" TEXT REFERENCES "User"("id") ON DELETE SET NULL);
CREATE UNIQUE INDEX "Url_code_vanity_key" ON "Url"("code", "vanity");
`;

export const V3_TABLES = `
CREATE TABLE "User" ("id" SERIAL PRIMARY KEY, "username" TEXT NOT NULL, "password" TEXT, "avatar" TEXT, "token" TEXT NOT NULL,
  "administrator" BOOLEAN NOT NULL DEFAULT false, "superAdmin" BOOLEAN NOT NULL DEFAULT false, "systemTheme" TEXT NOT NULL DEFAULT 'system',
  "embed" JSONB NOT NULL DEFAULT '{}', "ratelimit" TIMESTAMP(3), "totpSecret" TEXT, "domains" TEXT[], "uuid" UUID);
CREATE TABLE "Folder" ("id" SERIAL PRIMARY KEY, "name" TEXT NOT NULL, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMP(3) NOT NULL, "userId" INTEGER NOT NULL REFERENCES "User"("id") ON DELETE CASCADE, "public" BOOLEAN NOT NULL DEFAULT false);
CREATE TABLE "File" ("id" SERIAL PRIMARY KEY, "name" TEXT NOT NULL, "originalName" TEXT, "mimetype" TEXT NOT NULL DEFAULT 'image/png',
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP, "expiresAt" TIMESTAMP(3), "maxViews" INTEGER, "views" INTEGER NOT NULL DEFAULT 0,
  "favorite" BOOLEAN NOT NULL DEFAULT false, "embed" BOOLEAN NOT NULL DEFAULT false, "password" TEXT, "size" BIGINT NOT NULL DEFAULT 0,
  "userId" INTEGER REFERENCES "User"("id") ON DELETE SET NULL, "folderId" INTEGER REFERENCES "Folder"("id") ON DELETE SET NULL);
CREATE TABLE "Url" ("id" TEXT NOT NULL PRIMARY KEY, "destination" TEXT NOT NULL, "vanity" TEXT, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "maxViews" INTEGER, "views" INTEGER NOT NULL DEFAULT 0, "userId" INTEGER REFERENCES "User"("id") ON DELETE SET NULL);
`;
