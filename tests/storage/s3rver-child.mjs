// Runs s3rver (a local S3-compatible server) in a child process for the storage tests, so
// the memory test measures our adapter and not the server. Args: <directory> <bucket>.
// Reports {port} over IPC once listening; exits when the parent disconnects.
import S3rver from "s3rver";

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ address: "127.0.0.1", port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
const address = await server.run();
process.send?.({ port: address.port });
process.on("disconnect", () => {
  server.close().finally(() => process.exit(0));
});
