import Testing
import TodoStore

/// What `todo remind` and `todo-serve deliver-reminder` say to each other: every failure comes
/// back as it left, and a request keeps every field.
@Suite(.timeLimit(.minutes(1))) struct DeliveryWireTests {
    @Test func everyFailureCrossesThePipeUnchanged() {
        var problems = FactWordingTests.deliveryProblems
        problems += FactWordingTests.smtpSteps.map { .smtpAnswer(host: "mail", step: $0, code: 451, said: "451 later") }
        problems.append(.cannotConnect(host: "h", port: 25, errno: nil))
        problems.append(.connectionBroke(nil))
        for p in problems {
            for f in [DeliveryFailure.transient(p), .refused(p)] {
                #expect(DeliveryAnswer.decode(DeliveryAnswer.encode(f), program: "t") == f, "\(f)")
            }
        }
        #expect(DeliveryAnswer.decode(DeliveryAnswer.encode(nil), program: "t") == nil)
        #expect(DeliveryAnswer.decode("not json", program: "t") == .transient(.helperFailed(program: "t")))
        #expect(DeliveryAnswer.decode("{\"failure\":\"refused\",\"problem\":\"new\"}", program: "t") == .transient(.helperFailed(program: "t")))
    }

    @Test func aRequestKeepsEveryField() throws {
        var settings = ReminderSettings()
        settings.smtpHost = "mail.example.org"
        settings.smtpPort = 587
        settings.smtpSecurity = .starttls
        settings.smtpUser = "family"
        settings.smtpPassword = " pa\"ss\n"
        settings.postToken = "tok"
        settings.caFile = "/etc/ca.pem"
        var message = ReminderMessage(member: "Kim", household: "home", subject: "todo: é", body: "Due today:\n  - Milk\n", identity: "0123")
        message.links = [ReminderLink(label: "Done: Milk", url: "https://hub/r/x")]
        message.click = "https://hub/"
        for target in [NetworkDelivery.Target.mail(from: "a@b.c", to: "kim@b.c"), .post(url: "https://ntfy.sh/kim")] {
            let request = NetworkDelivery(target: target, message: message, settings: settings, nowMillis: 1_763_629_200_000, timeoutSeconds: 7)
            let back = try #require(NetworkDelivery.decode(request.encoded()))
            #expect(back.target == target && back.settings.smtpPassword == " pa\"ss\n" && back.settings.caFile == "/etc/ca.pem")
            #expect(back.settings.smtpSecurity == .starttls && back.settings.smtpPort == 587 && back.settings.postToken == "tok")
            #expect(back.message.body == message.body && back.message.links == message.links && back.message.click == message.click)
            #expect(back.message.messageID == message.messageID && back.nowMillis == 1_763_629_200_000 && back.timeoutSeconds == 7)
        }
        #expect(NetworkDelivery.decode(Array("{}".utf8)) == nil)
    }
}
