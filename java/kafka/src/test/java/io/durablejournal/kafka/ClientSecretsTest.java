package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the store and the tool hide of client settings in the messages they build from a Kafka
 * client's (no broker: the secured broker's own test is SecuredKafkaTest): every secret setting's
 * value, each secret option inside a JAAS config, through a whole exception chain; nothing else.
 */
class ClientSecretsTest {
    private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required"
            + " username=\"svc-journal\" password=\"pa55-w0rd-in-jaas\" tokenauth=true clientSecret='s3cret-option';";
    private static final KafkaStoreConfig CONFIG = KafkaStoreConfig.of("broker:9093", "journal")
            .with("security.protocol", "SASL_SSL")
            .with("sasl.jaas.config", JAAS)
            .with("ssl.truststore.password", "truststore-pass")
            .with("ssl.key.password", "key-pass-1234")
            .with("sasl.oauthbearer.client.secret", "oauth-secret-99")
            .with("client.id", "journal-writer");

    @Test
    void secretSettingsAndTheSecretsInsideAJaasConfigAreHidden() {
        String message = "failed with " + JAAS + " and truststore-pass, key-pass-1234, oauth-secret-99 for journal-writer";
        String shown = CONFIG.redact(message);
        for (String secret : new String[] {"pa55-w0rd-in-jaas", "s3cret-option", "truststore-pass", "key-pass-1234", "oauth-secret-99"}) {
            assertFalse(shown.contains(secret), secret + " in " + shown);
        }
        assertTrue(shown.contains("journal-writer") && shown.contains("[hidden]"), shown);
        // Quoted alone, as a parser's message might.
        assertEquals("bad option password=\"[hidden]\"", CONFIG.redact("bad option password=\"pa55-w0rd-in-jaas\""));
    }

    @Test
    void anExceptionChainThatHoldsASecretIsCopiedWithoutIt() {
        IOException cause = new IOException("login with password=\"pa55-w0rd-in-jaas\" refused");
        RuntimeException failure = new RuntimeException("opening failed", cause);
        Throwable shown = CONFIG.redact(failure);
        StringWriter trace = new StringWriter();
        shown.printStackTrace(new PrintWriter(trace));
        assertFalse(trace.toString().contains("pa55-w0rd-in-jaas"), trace.toString());
        assertTrue(trace.toString().contains("java.io.IOException: login with password=\"[hidden]\" refused"), trace.toString());
        assertEquals(cause.getStackTrace()[0], shown.getCause().getStackTrace()[0], "the stack traces are kept");

        RuntimeException clean = new RuntimeException("no secret here");
        assertSame(clean, CONFIG.redact(clean), "an exception without a secret is passed on as it is");
    }

    @Test
    void onlySettingsKafkaTreatsAsPasswordsOrThatNameSecretsAreSecret() {
        for (String name : new String[] {"sasl.jaas.config", "ssl.keystore.password", "ssl.key.password", "ssl.truststore.password",
                "ssl.keystore.key", "ssl.truststore.certificates", "sasl.oauthbearer.client.secret", "custom.token"}) {
            assertTrue(ClientSecrets.isSecret(name), name);
        }
        for (String name : new String[] {"security.protocol", "sasl.mechanism", "ssl.truststore.location", "client.id"}) {
            assertFalse(ClientSecrets.isSecret(name), name);
        }
        assertEquals("SASL_SSL at [hidden]", ClientSecrets.of(Map.of("ssl.key.password", "broker:9093")).redact("SASL_SSL at broker:9093"));
    }
}
