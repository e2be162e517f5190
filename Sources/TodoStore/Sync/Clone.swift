#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit
import TodoCore

extension Household {

    /// A new member joins: creates the household from the remote's `main` (or, if the remote is
    /// empty, as a new household whose history the first sync pushes). Nothing is left behind
    /// when it fails.
    public static func clone(
        home: String, name: String, url: String, identity: Identity, clock: WallClock = .system, driverCommand: String,
        options: SyncOptions
    ) throws -> Household {
        try validate(name: name)
        let path = "\(home)/\(name)"
        if access(path, F_OK) == 0 { throw StoreError.householdExists(name: name, path: path) }
        try makeDirectories(home)
        GitLibrary.start()
        do {
            let repo = try Repository.create(path: path)
            let household = Household(name: name, path: path, repo: repo, clock: clock)
            try household.configure(identity: identity, driverCommand: driverCommand)
            try household.setRemote(url)
            let started = clock.nowMillis()
            try chooseCertificates(repo, options)
            let network = Network(url: url, options: options, deadline: monotonicSeconds() + options.timeout)
            try network.run("fetch") { cb in
                try repo.fetch(url: url, refspecs: ["+refs/heads/main:\(trackingRef)"], callbacks: cb)
            }
            if let tip = try repo.resolve(reference: trackingRef) {
                try Incoming.validate(repo, tip: tip, have: [])
                try repo.updateReference(branch, to: tip, expected: nil, message: "clone")
                try repo.checkoutAll(tree: try repo.commit(tip).tree)
            } else {
                try household.update { _ in
                    Household.Update(
                        tasks: [], files: [(MergeSetup.attributesPath, Array(MergeSetup.attributes.utf8))],
                        message: "init: household \(name)", value: ())
                }
            }
            // Joining is the first exchange with the remote: `todo status` counts it as a sync.
            household.recordSync(at: started, error: nil, remote: redactedURL(url))
            return household
        } catch {
            removeTree(path)
            if let e = error as? SyncError { throw e }
            throw StoreError.from(error, path: path)
        }
    }
}
