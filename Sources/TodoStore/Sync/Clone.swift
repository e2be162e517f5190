import Glibc
import GitKit
import TodoCore

extension Household {
    /// A new member joins: creates the household from the remote's `main`, or, if the remote is
    /// empty (its creator has not synced yet), as a household that waits for the remote's first
    /// history (Join.swift). Nothing is left behind when it fails: no repository at the URL
    /// (`noRepository`), a `main` that is not a household's (`notAHousehold`) or content the
    /// format does not allow.
    public static func clone(
        home: String, name: String, url: String, identity: Identity, clock: WallClock = .system, driverCommand: String,
        options: SyncOptions
    ) throws -> Household {
        try make(home: home, name: name, identity: identity, clock: clock, driverCommand: driverCommand) { household in
            let repo = household.repo
            try household.setRemote(url)
            let started = clock.nowMillis()
            try chooseCertificates(repo, options)
            let network = Network(url: url, options: options, deadline: monotonicSeconds() + options.timeout)
            let shown = redactedURL(url)
            do {
                try network.run("fetch") { cb in
                    try repo.fetch(url: url, refspecs: ["+refs/heads/main:\(trackingRef)"], callbacks: cb)
                }
            } catch let e as SyncError where e.code == .noRepository {
                throw SyncError(.noRepository, .noRepositoryToJoin(remote: shown), detail: e.detail, cause: e.cause)
            }
            if let tip = try repo.resolve(reference: trackingRef) {
                if (try? looksLikeHousehold(repo, tip: tip)) == false {
                    throw SyncError(.notAHousehold, .notAHousehold(remote: shown))
                }
                try Incoming.validate(repo, tip: tip, have: [])
                try repo.updateReference(branch, to: tip, expected: nil, message: "clone")
                try repo.checkoutAll(tree: try repo.commit(tip).tree)
            } else {
                // Its own first commit stays here: the household's history comes from whoever
                // created it, on the first sync after theirs.
                try household.commitMergeSetup()
                try household.setWaitingForRemote(true)
            }
            // Joining is the first exchange with the remote: `todo status` counts it as a sync.
            household.recordSync(at: started, error: nil, remote: shown)
        }
    }
}
