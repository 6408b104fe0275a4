/// Quotes an SQL identifier (a table or column name): `"name"`, doubling any quote inside, as
/// [SQLite's keywords page](https://www.sqlite.org/lang_keywords.html) asks. The one quoter of
/// every name written into SQL, on the device and at build time alike.
package func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
