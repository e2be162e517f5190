import Glibc
import NIOSSL

/// `--tls-cert` and `--tls-key` (docs/SERVE.md, "TLS, proxy, exit codes, signals"): PEM files,
/// the chain then the key; the key file the user's own and 0600 or 0400. Anything wrong is
/// exit 78, naming the file and what is wrong.
enum TLSFiles {
    struct Problem: Error {
        let message: String
    }

    static func configuration(cert: String, key: String) throws(Problem) -> TLSConfiguration {
        guard access(cert, R_OK) == 0 else { throw Problem(message: "cannot read the certificate file \(cert) (\(String(cString: strerror(errno)))).") }
        var st = stat()
        guard stat(key, &st) == 0, access(key, R_OK) == 0 else {
            throw Problem(message: "cannot read the key file \(key) (\(String(cString: strerror(errno)))).")
        }
        guard st.st_uid == getuid(), st.st_mode & 0o077 == 0 else {
            throw Problem(message: "the key file \(key) must be yours and private (chmod 600 \(key)).")
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(cert)
        } catch {
            throw Problem(message: "\(cert) holds no PEM certificate.")
        }
        guard !chain.isEmpty else { throw Problem(message: "\(cert) holds no PEM certificate.") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw Problem(message: "\(key) holds no PEM private key.")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        do {
            // Loading them together checks that the key is the certificate's.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Problem(message: "the key in \(key) does not match the certificate in \(cert).")
        }
        return configuration
    }
}
