/// The cycle of a worker on a leased queue (store obligations, consumption requests): claim a batch of what is
/// due, handle each item, and claim again until nothing is due or the task is cancelled. Claiming leases the
/// rows to this worker, so any number of workers can run; what a worker claimed and did not finish (it died)
/// is claimable again once its lease runs out.
enum LeasedQueue {
    static func drain<Item>(
        claim: () async throws -> [Item], handle: (Item) async throws -> Void
    ) async throws {
        while !Task.isCancelled {
            let due = try await claim()
            if due.isEmpty { return }
            for item in due { try await handle(item) }
        }
    }
}
