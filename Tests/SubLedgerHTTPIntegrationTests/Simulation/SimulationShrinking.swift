import PropertyBased
import Testing

/// Shrinks a failing world's plan to a short one that still fails, with swift-property-based's property checker: the
/// plan is the checker's input, its shrinking sequence `Self.candidates`, and a candidate is kept when the world it
/// describes still breaks an invariant. The checker then records the shortest failing plan as the test's issue, and
/// that plan, pasted into `SimulationFindingsTests`, is the regression test.
///
/// Each candidate is a whole world run (its own database), so shrinking takes minutes; `scripts/simulate` turns it on
/// (`SIMULATION_SHRINK=1`), the short CI run does not.
enum SimulationShrinking {
    /// Shrinks `plan`, which `fails` (answering what broke, or nil when the plan's world held), and answers the
    /// shortest failing plan found; nil when the plan itself held on its replay (the checker then records nothing).
    /// Call from a test: the checker records the failure, with the shrunk plan, as an issue of it.
    static func shrink<Step: Sendable>(
        _ plan: [Step], failing fails: ([Step]) async throws -> String?
    ) async -> [Step]? {
        var shortest: [Step]?
        let input = Generator<[Step], [[Step]]>(run: { _ in plan }, shrink: { candidates(of: $0) })
        await propertyCheck(count: 1, input: input) { candidate in
            guard let broken = try await fails(candidate) else { return }
            if candidate.count <= shortest?.count ?? plan.count { shortest = candidate }
            Issue.record("\(broken)")
        }
        return shortest
    }

    /// The plans tried in place of `plan`, most shrunk first: without its first or second half, then without each
    /// quarter, eighth … and finally without each single step. Every candidate is strictly shorter, so shrinking
    /// ends.
    static func candidates<Step>(of plan: [Step]) -> [[Step]] {
        var candidates: [[Step]] = []
        var size = plan.count / 2
        while size >= 1 {
            var start = 0
            while start < plan.count {
                let end = min(start + size, plan.count)
                candidates.append(Array(plan[..<start]) + Array(plan[end...]))
                start = end
            }
            size = size == 1 ? 0 : max(1, size / 2)
        }
        return candidates
    }
}
