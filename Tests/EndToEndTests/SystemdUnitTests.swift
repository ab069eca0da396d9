import ChildProcesses
import Foundation
import Testing

/// The repository's root, from this file's place in it.
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let systemdDirectory = repositoryRoot.appendingPathComponent("deploy/systemd")

/// Each executable with a unit, and its unit's file name: every `tickwire-*.service` in deploy/systemd (the main
/// package's services and the plugins the deployment runs), its executable the `ExecStart`'s.
private let units: [(executable: String, unit: String)] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: systemdDirectory.path)) ?? []
    return names.filter { $0.hasPrefix("tickwire-") && $0.hasSuffix(".service") }.sorted().compactMap { unit in
        let text = (try? String(contentsOf: systemdDirectory.appendingPathComponent(unit), encoding: .utf8)) ?? ""
        guard let start = text.firstMatch(of: /\nExecStart=\/usr\/local\/bin\/([a-z0-9-]+)/) else { return nil }
        return (String(start.output.1), unit)
    }
}()

/// The plugin packages' folders: each folder of Examples with a Package.swift.
private let pluginPackages: [URL] = {
    let examples = repositoryRoot.appendingPathComponent("Examples")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
    return names.sorted().map { examples.appendingPathComponent($0) }
        .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Package.swift").path) }
}()

/// Where `executable` was built: the main package's products beside the tests, a plugin's in its own package.
private func builtExecutable(_ executable: String) -> URL? {
    let candidates = [ServiceProcess.binDirectory.appendingPathComponent(executable)]
        + pluginPackages.flatMap { package in ["debug", "release"].map { package.appendingPathComponent(".build/\($0)/\(executable)") } }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// Every `TICKWIRE_…` name in `text`.
private func variables(in text: String) -> Set<String> {
    Set(text.matches(of: /TICKWIRE_[A-Z0-9_]*[A-Z0-9]/).map { String($0.output) })
}

/// The variables an environment file sets (`NAME=value` lines).
private func assigned(inEnvironmentFile name: String) throws -> Set<String> {
    let text = try String(contentsOf: systemdDirectory.appendingPathComponent("env/\(name).env"), encoding: .utf8)
    return Set(text.split(separator: "\n").compactMap { line in
        line.hasPrefix("#") ? nil : line.split(separator: "=", maxSplits: 1).first.map(String.init)
    })
}

private func systemdAnalyze() -> URL? {
    ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

@Suite("systemd units and their environment files")
struct SystemdUnitTests {
    /// `systemd-analyze verify` accepts every unit (each `ExecStart` pointed at the executable built here).
    @Test func unitsVerify() async throws {
        guard let analyze = systemdAnalyze() else {
            print("skipped: systemd-analyze is not installed, so the units are not verified")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-units-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (executable, unit) in units {
            var text = try String(contentsOf: systemdDirectory.appendingPathComponent(unit), encoding: .utf8)
            let built = builtExecutable(executable)
            if built == nil { print("\(unit): \(executable) is not built here; verified with /bin/true as its ExecStart") }
            text = text.replacingOccurrences(of: "ExecStart=/usr/local/bin/\(executable)", with: "ExecStart=\(built?.path ?? "/bin/true")")
            let copy = directory.appendingPathComponent(unit)
            try text.write(to: copy, atomically: true, encoding: .utf8)
            paths.append(copy.path)
        }
        let (status, output) = try await ChildProcess.run(analyze.path, ["verify", "--man=no"] + paths)
        #expect(status == 0, "systemd-analyze verify failed:\n\(output)")
        #expect(!output.contains("tickwire"), "systemd-analyze verify complained:\n\(output)")
    }

    /// Every unit takes its settings from `/etc/tickwire/<name>.env` and runs hardened, with a restart policy.
    @Test func unitsAreHardened() throws {
        #expect(Set(units.map(\.executable)).isSuperset(of: ["rates-fetcher", "converter", "portfolio", "presenter", "tickwire-proxy"]),
                "deploy/systemd has a unit of each service: \(units.map(\.unit))")
        for (executable, unit) in units {
            let text = try String(contentsOf: systemdDirectory.appendingPathComponent(unit), encoding: .utf8)
            let lines = Set(text.split(separator: "\n").map(String.init))
            for required in [
                "ExecStart=/usr/local/bin/\(executable)", "EnvironmentFile=/etc/tickwire/\(executable).env",
                "DynamicUser=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
                "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "Restart=on-failure",
            ] {
                #expect(lines.contains(required), "\(unit) lacks \(required)")
            }
            #expect(!lines.contains { $0.hasPrefix("Environment=") }, "\(unit) sets a variable itself instead of in its environment file")
        }
        let portfolio = try String(contentsOf: systemdDirectory.appendingPathComponent("tickwire-portfolio.service"), encoding: .utf8)
        #expect(portfolio.contains("StateDirectory=tickwire\n"))
        #expect(try assigned(inEnvironmentFile: "portfolio").contains("TICKWIRE_DATABASE"))
    }

    /// Each service's environment file lists every variable it reads (those its `--help` names), and no other.
    @Test func environmentFilesListEveryVariable() async throws {
        for (executable, _) in units {
            guard let built = builtExecutable(executable) else {
                print("skipped for \(executable): not built here (build it to check its environment file)")
                continue
            }
            let help = try await ChildProcess.run(built.path, ["--help"])
            #expect(help.status == 0)
            var read = variables(in: help.output)
            // `--metrics` names its variable by a pattern, TICKWIRE_<SERVICE>_METRICS: this service's own.
            if help.output.contains("TICKWIRE_<SERVICE>_METRICS") {
                read.insert("TICKWIRE_\(executable.uppercased().replacingOccurrences(of: "-", with: "_"))_METRICS")
            }
            #expect(read.contains("TICKWIRE_LOG_LEVEL"), "\(executable)'s help names no variable:\n\(help.output)")
            let listed = try assigned(inEnvironmentFile: executable)
            #expect(read.subtracting(listed).isEmpty, "\(executable).env lacks \(read.subtracting(listed).sorted())")
            #expect(listed.subtracting(read).isEmpty, "\(executable).env sets what it does not read: \(listed.subtracting(read).sorted())")
        }
        let fetcher = try assigned(inEnvironmentFile: "rates-fetcher")
        #expect(fetcher.isSuperset(of: ["TICKWIRE_GNB_URL", "TICKWIRE_MASTERDATA"]))
    }

    /// Every variable named in the services' sources is in some environment file (a variable whose flag's help
    /// forgot it is caught here), but for the container probe's, which no unit runs.
    @Test func everyVariableInTheSourcesIsListed() throws {
        var named: Set<String> = []
        let folders = [repositoryRoot.appendingPathComponent("Sources"), repositoryRoot.appendingPathComponent("Services")]
            + pluginPackages.flatMap { [$0.appendingPathComponent("Sources"), $0.appendingPathComponent("Services")] }
        for root in folders {
            guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                named.formUnion(text.matches(of: /"(TICKWIRE_[A-Z0-9_]*[A-Z0-9])"/).map { String($0.output.1) })
            }
        }
        var listed: Set<String> = []
        for (executable, _) in units { listed.formUnion(try assigned(inEnvironmentFile: executable)) }
        #expect(named.count > 10)
        named.remove("TICKWIRE_PROBE_ENDPOINT")
        #expect(named.subtracting(listed).isEmpty, "no environment file lists \(named.subtracting(listed).sorted())")
    }
}
