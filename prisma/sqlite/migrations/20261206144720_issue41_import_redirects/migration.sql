-- CreateTable
CREATE TABLE "ImportedItem" (
    "source" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "userId" TEXT,
    "postId" TEXT,
    "shortLinkId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("source", "key"),
    CONSTRAINT "ImportedItem_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ImportedItem_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ImportedItem_shortLinkId_fkey" FOREIGN KEY ("shortLinkId") REFERENCES "ShortLink" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ImportRedirect" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "host" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "postId" TEXT,
    "shortLinkId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ImportRedirect_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ImportRedirect_shortLinkId_fkey" FOREIGN KEY ("shortLinkId") REFERENCES "ShortLink" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ImportHost" (
    "host" TEXT NOT NULL PRIMARY KEY,
    "source" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ImportedItem_userId_idx" ON "ImportedItem"("userId");

-- CreateIndex
CREATE INDEX "ImportedItem_postId_idx" ON "ImportedItem"("postId");

-- CreateIndex
CREATE INDEX "ImportedItem_shortLinkId_idx" ON "ImportedItem"("shortLinkId");

-- CreateIndex
CREATE INDEX "ImportRedirect_path_idx" ON "ImportRedirect"("path");

-- CreateIndex
CREATE INDEX "ImportRedirect_postId_idx" ON "ImportRedirect"("postId");

-- CreateIndex
CREATE INDEX "ImportRedirect_shortLinkId_idx" ON "ImportRedirect"("shortLinkId");

-- CreateIndex
CREATE UNIQUE INDEX "ImportRedirect_host_path_key" ON "ImportRedirect"("host", "path");
