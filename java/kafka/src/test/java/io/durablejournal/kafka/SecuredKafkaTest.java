package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka store on a cluster that requires TLS and SASL and enforces ACLs ({@link SecuredKafka},
 * one broker for the class): a principal with rights on its topic alone runs the store; the store
 * never creates its topic, and a principal may only where it is granted; a principal without
 * WRITE is refused at open with STORE_IO naming the topic and the operation, and a write the
 * cluster refuses later is STORE_IO with nothing acknowledged; a wrong password fails at open.
 * KafkaJournalTool reads the same settings file as the store. No secret of the settings appears in
 * any message, toString or output here (each is printed, for junitSecretScan to check as well).
 */
class SecuredKafkaTest {
    private static final int MAX_PARALLELISM = KafkaActionStateStores.DEFAULT_MAX_PARALLELISM;
    private static final String TOPIC = "journal-alice";
    private static final AclOperation[] STORE_RIGHTS = {
        AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS
    };
    private static SecuredKafka kafka;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startSecuredBroker() throws Exception {
        SecuredKafka.logClientSettings(true);
        kafka = SecuredKafka.start();
        kafka.broker().createTopic(TOPIC, 1);
        kafka.allow("alice", TOPIC, STORE_RIGHTS);
        kafka.allow("bob", TOPIC, AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS);
    }

    @AfterAll
    static void stopSecuredBroker() throws Exception {
        SecuredKafka.logClientSettings(false);
        if (kafka != null) {
            kafka.close();
        }
    }

    private static KafkaStoreConfig alice(String topic) {
        return kafka.config(topic, "alice", SecuredKafka.secret("alice.password"));
    }

    /** Prints what an operator would see (junitSecretScan reads it too) and checks that it hides every secret. */
    private static String shown(Object seen) {
        String text = seen instanceof Throwable ? stackTrace((Throwable) seen) : String.valueOf(seen);
        System.out.println("[SecuredKafkaTest] " + text);
        for (String name : SecuredKafka.SECRETS.stringPropertyNames()) {
            assertFalse(text.contains(SecuredKafka.secret(name)), () -> name + " is in: " + text);
        }
        return text;
    }

    private static String stackTrace(Throwable failure) {
        StringWriter out = new StringWriter();
        failure.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    /** A new history on {@code config}'s topic with one action of {@code calls} completed calls; returns its marker. */
    private static byte[] history(KafkaStoreConfig config, String key, String... calls) {
        try (LogActionStateStore store = KafkaActionStateStores.open(config, MAX_PARALLELISM, 0, MAX_PARALLELISM - 1)) {
            store.startFresh(KafkaActionStateStores.randomLineage());
            try (DurableExecutionContext journal = store.openContext(key, 0, "chat", EventIdentity.rootOccurrence(key, 0), null)) {
                for (String call : calls) {
                    journal.recordCallCompletion(call, ("answer of " + call).getBytes(StandardCharsets.UTF_8), null);
                }
            }
            shown(store);
            shown(store.stats());
            return store.getRecoveryMarker();
        }
    }

    private static Map<String, Integer> records(String topic) {
        return KafkaBroker.valueRecordsByKey(kafka.broker().bootstrapServers(), topic, 1);
    }

    @Test
    void aPrincipalWithRightsOnItsTopicAloneRunsTheStore() throws Exception {
        KafkaStoreConfig config = alice(TOPIC);
        byte[] marker = history(config, "user-1", "llm", "tool:search");
        try (LogActionStateStore restored = KafkaActionStateStores.open(config, MAX_PARALLELISM, 0, MAX_PARALLELISM - 1)) {
            restored.rebuildState(List.of(marker));
            assertEquals(2, restored.get("user-1", 0, "chat", EventIdentity.rootOccurrence("user-1", 0)).getCallResults().size());
        }
        shown(config);
        shown(KafkaActionStateStores.factory(config));
    }

    @Test
    void theStoreNeverCreatesItsTopicAndAPrincipalCreatesOneOnlyWhereGranted() throws Exception {
        JournalException missing = assertThrows(JournalException.class, () -> history(alice("journal-missing"), "user-1"));
        assertEquals(JournalException.Code.STORE_IO, missing.getCode());
        String message = shown(missing);
        assertTrue(message.contains("'journal-missing'") && message.contains("DESCRIBE") && message.contains("never creates"), message);
        try (Admin admin = kafka.admin()) {
            assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("journal-missing"));
        }
        try (Admin asAlice = kafka.adminOf("alice", SecuredKafka.secret("alice.password"))) {
            NewTopic topic = new NewTopic("journal-granted", 1, (short) 1).configs(Map.of("cleanup.policy", "compact"));
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> asAlice.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof TopicAuthorizationException, shown(refused));

            kafka.allow("alice", "journal-granted", AclOperation.CREATE);
            kafka.allow("alice", "journal-granted", STORE_RIGHTS);
            asAlice.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        }
        assertNotNull(history(alice("journal-granted"), "user-2", "llm"));
    }

    @Test
    void aPrincipalWithoutWriteIsRefusedAtOpenNamingTheTopicAndTheOperation() throws Exception {
        history(alice(TOPIC), "user-3", "llm");
        Map<String, Integer> before = records(TOPIC);
        KafkaStoreConfig bob = kafka.config(TOPIC, "bob", SecuredKafka.secret("bob.password"));
        JournalException refused = assertThrows(JournalException.class,
                () -> KafkaActionStateStores.open(bob, MAX_PARALLELISM, 0, MAX_PARALLELISM - 1));
        assertEquals(JournalException.Code.STORE_IO, refused.getCode());
        String message = shown(refused);
        assertTrue(message.contains("'" + TOPIC + "'") && message.contains("to WRITE the topic"), message);
        assertEquals(before, records(TOPIC));
    }

    @Test
    void aWriteTheClusterRefusesIsStoreIoNamingTheTopicAndNothingIsAcknowledged() throws Exception {
        String topic = kafka.broker().createTopic("journal-revoked", 1);
        kafka.allow("alice", topic, STORE_RIGHTS);
        try (LogActionStateStore store = KafkaActionStateStores.open(alice(topic), MAX_PARALLELISM, 0, MAX_PARALLELISM - 1)) {
            store.startFresh(KafkaActionStateStores.randomLineage());
            try (DurableExecutionContext journal = store.openContext("user-4", 0, "chat", EventIdentity.rootOccurrence("user-4", 0), null)) {
                journal.recordCallCompletion("llm", "first".getBytes(StandardCharsets.UTF_8), null);
                Map<String, Integer> acknowledged = records(topic);

                kafka.revoke("alice", topic, AclOperation.WRITE);
                JournalException refused = assertThrows(JournalException.class,
                        () -> journal.recordCallCompletion("tool:mail", "second".getBytes(StandardCharsets.UTF_8), null));
                assertEquals(JournalException.Code.STORE_IO, refused.getCode());
                String message = shown(refused);
                assertTrue(message.contains("'" + topic + "'") && message.contains("WRITE") && message.contains("nothing of them is recorded"),
                        message);
                assertEquals(acknowledged, records(topic), "the refused call left no record");
                assertEquals(1, journal.size(), "the journal holds the acknowledged call alone");
            }
        }
    }

    @Test
    void aWrongPasswordFailsAtOpen() {
        KafkaStoreConfig wrong = kafka.config(TOPIC, "alice", SecuredKafka.secret("wrong.password"));
        JournalException refused = assertThrows(JournalException.class,
                () -> KafkaActionStateStores.open(wrong, MAX_PARALLELISM, 0, MAX_PARALLELISM - 1));
        assertEquals(JournalException.Code.STORE_IO, refused.getCode());
        String message = shown(refused);
        assertTrue(message.contains("refused this client's credentials") && message.contains("sasl.jaas.config"), message);

        // A JAAS config the client cannot parse: its text (the password in it) stays out of the error too.
        KafkaStoreConfig malformed = alice(TOPIC).with("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule"
                + " required username=\"alice\" password=\"" + SecuredKafka.secret("alice.password") + "\"");
        shown(assertThrows(RuntimeException.class, () -> KafkaActionStateStores.open(malformed, MAX_PARALLELISM, 0, MAX_PARALLELISM - 1)));
    }

    @Test
    void theToolAndTheStoreReadOneSettingsFileAndTheDumpIsItsOwnersAlone() throws Exception {
        Path settings = tmp.resolve("client.properties");
        Properties client = new Properties();
        client.putAll(kafka.clientSettings("alice", SecuredKafka.secret("alice.password")));
        try (var out = Files.newBufferedWriter(settings, StandardCharsets.UTF_8)) {
            client.store(out, "alice on the secured listener");
        }
        String topic = kafka.broker().createTopic("journal-tool", 1);
        kafka.allow("alice", topic, STORE_RIGHTS);
        history(KafkaStoreConfig.of(kafka.secureServers(), topic).withSettingsFrom(settings), "user-5", "llm");

        Path dump = tmp.resolve("journal.dump");
        KafkaJournalTool.main(new String[] {"dump", "--config", settings.toString(), kafka.secureServers(), topic, dump.toString()});
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dump)));
        String shownPayloads = shown(KafkaJournalToolTest.tool(0, "show", dump.toString(), "1"));
        assertTrue(shownPayloads.contains("answer of llm"), shownPayloads);
        String redacted = shown(KafkaJournalToolTest.tool(0, "show", "--redact", dump.toString(), "1"));
        assertFalse(redacted.contains("answer of llm"), redacted);
        assertTrue(redacted.contains("13 B") && redacted.contains("sha256:"), redacted);
    }
}
