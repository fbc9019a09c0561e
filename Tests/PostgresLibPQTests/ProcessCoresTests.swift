#if os(Linux)
    import Foundation
    import Testing

    @testable import PostgresLibPQ

    @Suite struct ProcessCoresTests {
        @Test func theAffinityMaskLowersTheCountedCoresNeverRaisesThem() {
            #expect(ProcessCores.usable(of: 16, affinity: 4) == 4)
            #expect(ProcessCores.usable(of: 2, affinity: 16) == 2)
            #expect(ProcessCores.usable(of: 16, affinity: nil) == 16)
            #expect(ProcessCores.usable(of: 0, affinity: nil) == 1)
        }

        @Test func anAllowedListIsCountedByItsRanges() {
            let counted = ["0-3,8,10-11", "0", "0-15", "8-11", "0-3,x", "3-1", "", "-1", "0--2"].map {
                ProcessCores.allowed(
                    inStatus: "Name:\tx\nCpus_allowed:\tff\nCpus_allowed_list:\t\($0)\nMems_allowed:\t1\n")
            }
            #expect(counted == [7, 1, 16, 4, nil, nil, nil, nil, nil])
            #expect(ProcessCores.allowed(inStatus: "Name:\tx\n") == nil)
        }

        /// A process started under `taskset -c 0` (bound to one core) is stated by the kernel as allowed one core,
        /// although the machine may have more online; a child started without it inherits this process's mask.
        @Test func theKernelsStatementOfABoundProcessReadsOneCore() throws {
            #expect(ProcessCores.allowed(inStatus: try Self.status(of: ["/usr/bin/taskset", "-c", "0"])) == 1)
            let inherited = ProcessCores.allowed(inStatus: try Self.status(of: []))
            #expect(inherited != nil)
            #expect(ProcessCores.inAffinityMask() == inherited)
        }

        /// `/proc/self/status` of `cat`, started through `launcher` (nothing: directly).
        static func status(of launcher: [String]) throws -> String {
            let process = Process()
            let command = launcher + ["/bin/cat", "/proc/self/status"]
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let status = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return status
        }
    }
#endif
