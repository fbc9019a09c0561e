import Foundation

/// A broken promise the campaign observed, with the first request that showed it.
struct FuzzFinding: Sendable {
    var route: String
    var inputClass: String
    /// What went wrong: `500 internal_error`, `crash (signal 4): Fatal error: …`, `ledger changed by a 422`.
    var observed: String
    var example: String
    var count: Int = 1

    var key: String { "\(route) | \(inputClass) | \(observed)" }
}

/// The findings of one campaign, deduplicated by route, input class and observation.
struct FuzzFindings: Sendable {
    private(set) var all: [FuzzFinding] = []
    private var index: [String: Int] = [:]
    /// Statuses seen per route (for the summary).
    private(set) var statuses: [String: [String: Int]] = [:]

    mutating func record(_ finding: FuzzFinding) {
        if let existing = index[finding.key] {
            all[existing].count += 1
        } else {
            index[finding.key] = all.count
            all.append(finding)
        }
    }

    /// Time spent waiting for answers, per route.
    private(set) var waited: [String: Duration] = [:]

    mutating func time(route: String, _ duration: Duration) {
        waited[route, default: .zero] += duration
    }

    mutating func count(route: String, outcome: String) {
        statuses[route, default: [:]][outcome, default: 0] += 1
    }

    var isEmpty: Bool { all.isEmpty }

    /// One line per route: its statuses and how often.
    var statusSummary: String {
        statuses.keys.sorted().map { route in
            let counts = statuses[route]!.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(
                separator: " ")
            let total = statuses[route]!.values.reduce(0, +)
            let average = (waited[route] ?? .zero) / max(1, total)
            return
                "  \(route): \(counts) (answers took \(average.formatted(.units(allowed: [.milliseconds], width: .narrow))) on average)"
        }.joined(separator: "\n")
    }
}
