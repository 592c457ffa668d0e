import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery } from "@prisma/driver-adapter-utils";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { DatabaseConfig } from "./config";

/** The Prisma driver adapter for a database configuration. */
export function createAdapter(config: DatabaseConfig): SqlMigrationAwareDriverAdapterFactory {
  if (config.provider === "postgres") {
    // Prisma's `?schema=` convention: generated queries qualify tables with it, and the
    // search_path makes raw SQL land in the same schema.
    const url = new URL(config.url);
    const schema = url.searchParams.get("schema") || undefined;
    url.searchParams.delete("schema");
    return new PrismaPg(
      {
        connectionString: url.toString(),
        max: Number(process.env.DATABASE_POOL_SIZE || 10),
        ...(schema ? { options: `-c search_path="${schema.replace(/"/g, "")}"` } : {}),
      },
      schema ? { schema } : undefined,
    );
  }
  // `timeout` is SQLite's busy timeout: the admin CLI and the server write to one file.
  const factory = new PrismaBetterSqlite3({ url: config.url, timeout: 15_000 });
  const connectShadow = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => scriptTolerant(await connectShadow());
  return factory;
}

/**
 * The schema engine replays each migration on the (in-memory) SQLite shadow database as
 * one `executeRaw` call, and better-sqlite3 refuses to prepare more than one statement.
 * On the shadow connection only, a parameterless `executeRaw` runs as a script instead.
 * Used by the drift check (`diffToSchema(config, "migrations")`); queries never go there.
 */
function scriptTolerant(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return new Proxy(adapter, {
    get(target, property) {
      if (property === "executeRaw") {
        return async (query: SqlQuery): Promise<number> => {
          if (query.args.length > 0) return target.executeRaw(query);
          await target.executeScript(query.sql);
          return 0;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      // Bound to the real adapter: its methods use private fields a proxy does not have.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
