import Logging

/// swift-log's `StreamLogHandler` lines on standard error, with a logger's own metadata kept as it is
/// set and formatted only when a line is written. (`StreamLogHandler` formats it again on every
/// change, and the HTTP server names each request's logger: a formatting per request, logged or not.)
struct StandardErrorLogHandler: LogHandler {
    var lines: StreamLogHandler
    var metadata = Logger.Metadata()

    init(label: String) {
        self.init(lines: StreamLogHandler.standardError(label: label))
    }

    /// Writes its lines through `lines` (its own metadata left empty).
    init(lines: StreamLogHandler) {
        self.lines = lines
    }

    var logLevel: Logger.Level {
        get { lines.logLevel }
        set { lines.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { lines.metadataProvider }
        set { lines.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            // The line's own metadata wins over the logger's, as in `StreamLogHandler`.
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, line in line }
        }
        lines.log(event: event)
    }
}
