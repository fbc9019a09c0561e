import Crypto
import Foundation
import SubLedgerStore
import Testing

/// The binary carries exactly the files of `migrations/`, and a step that has shipped never changes: a database
/// migrated by an earlier build records each step's SHA-256, and `migrate` refuses a step whose text differs.
@Suite struct BundledMigrationsTests {
    /// The repository's `migrations/` folder, found from this file.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("migrations")

    @Test func theBinaryCarriesEveryFileOfTheFolderInOrder() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        let bundled = BundledMigrations.files()
        #expect(bundled.map(\.name) == names, "add a new migration file to BundledMigrations as well")
        for file in bundled where names.contains(file.name) {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.text == text, "\(file.name)")
        }
    }

    /// The SHA-256 of each shipped step as databases have recorded it since it shipped (the steps were first
    /// shipped in one file, `schema.sql`; the files keep each step's text byte for byte).
    static let shippedChecksums: [Int: String] = [
        1: "17433524a9fcad7cd6569aa7c192705c3102d39587d1685dad0eab5cbf9360f5",
        2: "05dca6e6f0aa4d76cd5be9782def42c0bd22867bf2c1205a85c381812a700d4c",
        3: "49d9747d98b29fc4e06037b10e0bd8f9cda804372dfd2b8806124b5068be0fda",
        4: "fee083c0d3a53d90093c2565bd84d9d2a9eaa420b462da7c1d5ed6b3b368fb60",
        5: "77f669698479d441d518223cfb9564879f2d8f103b7f196bd31931ab8a7cb182",
        6: "469f56d0328a4a8f6811ebe8752402303e1ce91b6c3f5c5a04c841f7e0cd388c",
        7: "7a6fa326bbaed15389b7d20d8684e6395dc77e483655f6c905a6c5a812b86a99",
        8: "0f3755056e8aab74c8434a2609ecb5f8b2e643113d21b5603dec106c0a7ff923",
        9: "2745f8f143debbcc1a6edfb7784fd0efcbb7176491f69ac21d59f8bcd1a877eb",
        10: "3d19498dad5c427be6137cad1d1ea9b237f6a5e176d6cafadf4d4f6b78fdaec3",
        11: "0f6ce4d05d170f757b990f20b6149ca13ae03a9b3adfc887e2b1f60fe051a6a7",
        12: "3ca359971eb9a689fcddef4ab113a4175d46c8bad8a74ae2beebce0d04b27aee",
        13: "5afc34b2df3ce5989fc34d4a66193095db88033b84cb9d36bceb9d69cbecdf10",
        14: "8685d466ca857b965374013887445dd83c0b83f9d38ca9543a2469b632904ada",
        15: "597481df83cb83d36c6e512c793fc650c67dedad95c22b57030079226f6a87dc",
        16: "f77d9ee142ff4951bb1d5f05e77c536c39041e5cb73d0e6e213ae16c8c02ee14",
        17: "438e7ba06f56b93fa5dd1e5e41e6c2d0c4608b2333ac04a511b926605b9da5d1",
        18: "066500a992c45f38709467bd98dad713281eab98dab5e87ec5172592a624b909",
        19: "fe4f6828315eb078c25acaf4635e2b9e6d94221fe8c96e602dc521f64331502f",
        20: "73599886b78b4a1e0efe4d68997c17880b5697587e7da44f65a402520e452219",
        21: "d9a39ce12e85f4df2bfdbd627ecee3762d6968d0451af683ce74d5a0a66a911e",
        22: "2578db1710175770145b5a258d99d3158a9dfd6165ca1645dcd7416d35c52242",
        23: "98a7f7050dc36306733978fe7b0036ca036c8577de26356b38dfccfa57b95191",
        24: "38394bcd46a4d6da0dfcadf23bcd5f7f380b60280b4fd211e34138018ebae097",
        25: "a5f1cc39cfae8f433d56f5758d97935c347bb391108b7c38d4e7494e1f5e7ff4",
        26: "4ea5cbda4b4ca91a6518449b2f254328b564aa65864c2d7dcff3d96f3749e70b",
        27: "8c5b5abc1c0c88c0f4e6443ab94e8e342d027ff2fa15e2f696d9cd0a4aca6be0",
        28: "1aa59fe7d31f50627270713828bb617262ccf50d4733a54c1022753468bd0237",
        29: "c8bb682db906d64b6e266f81e7e36500edadf72cef55b822b6375ed8e82b853a",
    ]

    @Test func aShippedStepKeepsItsChecksum() throws {
        let script = try BundledMigrations.script()
        #expect(script.latestVersion >= Self.shippedChecksums.count)
        for step in script.steps {
            guard let shipped = Self.shippedChecksums[step.version] else { continue }
            let checksum = SHA256.hash(data: Data(step.sql.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(checksum == shipped, "step \(step.version) (\(step.name)) changed after it shipped")
        }
    }
}
