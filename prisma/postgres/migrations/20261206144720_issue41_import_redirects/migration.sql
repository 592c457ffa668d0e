-- CreateTable
CREATE TABLE "ImportedItem" (
    "source" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "userId" TEXT,
    "postId" TEXT,
    "shortLinkId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportedItem_pkey" PRIMARY KEY ("source","key")
);

-- CreateTable
CREATE TABLE "ImportRedirect" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "postId" TEXT,
    "shortLinkId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportRedirect_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportHost" (
    "host" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportHost_pkey" PRIMARY KEY ("host")
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

-- AddForeignKey
ALTER TABLE "ImportedItem" ADD CONSTRAINT "ImportedItem_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportedItem" ADD CONSTRAINT "ImportedItem_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportedItem" ADD CONSTRAINT "ImportedItem_shortLinkId_fkey" FOREIGN KEY ("shortLinkId") REFERENCES "ShortLink"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportRedirect" ADD CONSTRAINT "ImportRedirect_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportRedirect" ADD CONSTRAINT "ImportRedirect_shortLinkId_fkey" FOREIGN KEY ("shortLinkId") REFERENCES "ShortLink"("id") ON DELETE CASCADE ON UPDATE CASCADE;
