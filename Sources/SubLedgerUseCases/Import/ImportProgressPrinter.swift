import Foundation
import Synchronization

/// Shows an import's progress: a bar with rate and ETA redrawn in place on a terminal, or a plain line
/// every few seconds when the output is a file or a pipe (logs, CI).
public final class ImportProgressPrinter: Sendable {
    private struct State {
        var lastPrint: ContinuousClock.Instant?
        var lastWidth = 0
    }

    private let isTerminal: Bool
    private let interval: Duration
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// `isTerminal` decides the style (the command passes `isatty` of standard error); `write` receives
    /// the text.
    public init(
        isTerminal: Bool, interval: Duration? = nil,
        write: @escaping @Sendable (String) -> Void = { text in FileHandle.standardError.write(Data(text.utf8)) }
    ) {
        self.isTerminal = isTerminal
        self.interval = interval ?? (isTerminal ? .milliseconds(100) : .seconds(5))
        self.write = write
    }

    /// Shows `progress` unless it was shown less than an interval ago (the last row is always shown).
    public func show(_ progress: ImportProgress) {
        let now = ContinuousClock.now
        let final = progress.rowsDone >= progress.totalRows
        let text: String? = state.withLock { state in
            if !final, let last = state.lastPrint, last.duration(to: now) < interval { return nil }
            state.lastPrint = now
            if isTerminal {
                let line = Self.bar(progress)
                let padding = String(repeating: " ", count: max(0, state.lastWidth - line.count))
                state.lastWidth = line.count
                return "\r" + line + padding + (final ? "\n" : "")
            }
            return Self.line(progress) + "\n"
        }
        if let text { write(text) }
    }

    /// Ends a bar left mid-line (after an interruption), so what follows starts on its own line.
    public func finish() {
        let pending = state.withLock { state -> Bool in
            defer { state.lastWidth = 0 }
            return isTerminal && state.lastWidth > 0
        }
        if pending { write("\n") }
    }

    /// `[#######.............]  35%  3500/10000 rows  812.4 rows/s  ETA 0:08  (failed 2, skipped 0)`
    static func bar(_ progress: ImportProgress, width: Int = 30) -> String {
        let fraction = progress.totalRows == 0 ? 1 : Double(progress.rowsDone) / Double(progress.totalRows)
        let filled = min(width, Int((fraction * Double(width)).rounded(.down)))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "[\(bar)] \(percent(fraction)) \(progress.rowsDone)/\(progress.totalRows) rows  "
            + "\(rate(progress.rate)) rows/s  ETA \(clock(progress.etaSeconds))  "
            + "(failed \(progress.rowsFailed), skipped \(progress.rowsSkipped))"
    }

    /// `import: 3500/10000 rows (35%), 812.4 rows/s, ETA 0:08, 3400 ok, 98 skipped, 2 failed`
    static func line(_ progress: ImportProgress) -> String {
        let fraction = progress.totalRows == 0 ? 1 : Double(progress.rowsDone) / Double(progress.totalRows)
        return
            "import: \(progress.rowsDone)/\(progress.totalRows) rows (\(percent(fraction).trimmingCharacters(in: .whitespaces))), "
            + "\(rate(progress.rate)) rows/s, ETA \(clock(progress.etaSeconds)), \(progress.rowsOK) ok, "
            + "\(progress.rowsSkipped) skipped, \(progress.rowsFailed) failed"
    }

    static func percent(_ fraction: Double) -> String {
        let value = Int((fraction * 100).rounded(.down))
        return String(repeating: " ", count: max(0, 3 - String(value).count)) + "\(value)%"
    }

    static func rate(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    /// `h:mm:ss` or `m:ss`; `--:--` when unknown.
    static func clock(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }
}
