/// A report laid out as a title, a header, rows of text cells, and notes (totals that fit no column).
public struct ReportTable: Sendable, Hashable {
    public var title: String
    public var columns: [String]
    public var rows: [[String]]
    /// Lines printed under the table (not part of the CSV).
    public var notes: [String]

    public init(title: String, columns: [String], rows: [[String]], notes: [String] = []) {
        self.title = title
        self.columns = columns
        self.rows = rows
        self.notes = notes
    }
}
