/// PostgreSQL's text input syntax for one-dimensional arrays (`{"a",NULL,"b"}`), so a statement can take a
/// whole column of rows as one parameter and `unnest` it: one round trip however many rows.
public enum PostgresArrayText {
    public static func strings(_ values: [String?]) -> String {
        var text = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            guard let value else {
                text += "NULL"
                continue
            }
            text += "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { text += "\\" }
                text.unicodeScalars.append(character)
            }
            text += "\""
        }
        return text + "}"
    }

    public static func integers(_ values: [Int64?]) -> String {
        "{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}"
    }

    public static func booleans(_ values: [Bool?]) -> String {
        "{" + values.map { $0.map { $0 ? "t" : "f" } ?? "NULL" }.joined(separator: ",") + "}"
    }
}
