import Logging

/// `--log-format text`: swift-log's own lines (`StreamLogHandler`'s, to standard error), with the logger's metadata
/// kept as given until a record is written.
///
/// `StreamLogHandler` formats its metadata as text each time an item is set. Hummingbird sets a request id on every
/// request's logger, so each request paid that formatting, although at the usual `warning` level no request writes
/// a line. Here setting an item is a dictionary's update; a record that is written hands the metadata to a
/// `StreamLogHandler` made for it, which formats and writes the line exactly as it would have.
struct TextLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// The handler that writes a record, given the label and the metadata provider.
    private let writer: @Sendable (String, Logger.MetadataProvider?) -> StreamLogHandler

    init(
        label: String, metadataProvider: Logger.MetadataProvider? = nil,
        writer: @escaping @Sendable (String, Logger.MetadataProvider?) -> StreamLogHandler = {
            StreamLogHandler.standardError(label: $0, metadataProvider: $1)
        }
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.writer = writer
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var handler = writer(label, metadataProvider)
        handler.logLevel = logLevel
        handler.metadata = metadata
        handler.log(event: event)
    }
}
