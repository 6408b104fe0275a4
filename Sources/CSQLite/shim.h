#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

// The system SQLite, for SeedInstall's one file of sqlite3_* calls on platforms without Apple's
// SQLite3 module. SQLITE_TRANSIENT is a macro Swift cannot import: SQLiteConnection spells it.
#include <sqlite3.h>

#endif
