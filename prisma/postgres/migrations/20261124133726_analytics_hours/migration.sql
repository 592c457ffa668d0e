-- CreateTable
CREATE TABLE "PostViewHour" (
    "postId" TEXT NOT NULL,
    "hour" TEXT NOT NULL,
    "views" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "PostViewHour_pkey" PRIMARY KEY ("postId","hour")
);

-- CreateTable
CREATE TABLE "UsageHour" (
    "subject" TEXT NOT NULL,
    "hour" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "uploadCount" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "UsageHour_pkey" PRIMARY KEY ("subject","hour")
);

-- CreateIndex
CREATE INDEX "PostViewHour_hour_idx" ON "PostViewHour"("hour");

-- CreateIndex
CREATE INDEX "UsageHour_hour_idx" ON "UsageHour"("hour");

-- AddForeignKey
ALTER TABLE "PostViewHour" ADD CONSTRAINT "PostViewHour_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;
