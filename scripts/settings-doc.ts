/** `npm run -s settings:doc`: the settings table of docs/configuration.md, from the one declaration (lib/config/settings-catalog.ts). */
import { settingsDocTable } from "../lib/config/settings-doc";

console.log(settingsDocTable());
