package io.durablejournal.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * A Kafka broker of its own that requires TLS and SASL and enforces ACLs: a {@code SASL_SSL}
 * listener (PLAIN over TLS, users {@code alice} and {@code bob}) with a certificate signed by a
 * test CA that {@code keytool} makes in the broker's temporary directory, and Kafka's
 * {@code StandardAuthorizer} with no ACL allowing anything by default. Its PLAINTEXT listener
 * (inter-broker, and {@link #admin()} for the tests' setup) is a super user's; no client of the
 * store uses it. The passwords are {@link #SECRETS}, recognisable values that junitSecretScan
 * looks for in the suite's output.
 */
final class SecuredKafka implements AutoCloseable {
    static final Properties SECRETS = secrets();

    private final Path dir;
    private final KafkaBroker broker;
    private final int securePort;

    private SecuredKafka(Path dir, KafkaBroker broker, int securePort) {
        this.dir = dir;
        this.broker = broker;
        this.securePort = securePort;
    }

    static String secret(String name) {
        return SECRETS.getProperty(name);
    }

    private static Properties secrets() {
        Properties secrets = new Properties();
        try (InputStream in = SecuredKafka.class.getResourceAsStream("test-secrets.properties")) {
            secrets.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return secrets;
    }

    static SecuredKafka start() throws Exception {
        Path dir = Files.createTempDirectory("durable-journal-secured-kafka");
        makeCertificates(dir);
        int plainPort = KafkaBroker.freePort();
        int controllerPort = KafkaBroker.freePort();
        int securePort = KafkaBroker.freePort();
        Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("listeners", "PLAINTEXT://127.0.0.1:" + plainPort + ",CONTROLLER://127.0.0.1:" + controllerPort
                + ",SECURE://127.0.0.1:" + securePort);
        overrides.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + plainPort + ",SECURE://127.0.0.1:" + securePort);
        overrides.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SECURE:SASL_SSL");
        overrides.put("listener.name.secure.sasl.enabled.mechanisms", "PLAIN");
        overrides.put("listener.name.secure.plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule"
                + " required user_alice=\"" + secret("alice.password") + "\" user_bob=\"" + secret("bob.password") + "\";");
        overrides.put("listener.name.secure.ssl.keystore.location", dir.resolve("broker.p12").toString());
        overrides.put("listener.name.secure.ssl.keystore.type", "PKCS12");
        overrides.put("listener.name.secure.ssl.keystore.password", secret("keystore.password"));
        overrides.put("listener.name.secure.ssl.key.password", secret("keystore.password"));
        overrides.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        // The PLAINTEXT and CONTROLLER listeners' principal: the broker itself, and the tests' setup.
        overrides.put("super.users", "User:ANONYMOUS");
        overrides.put("allow.everyone.if.no.acl.found", "false");
        // A principal's producer must not create a topic by sending to it (the store never does).
        overrides.put("auto.create.topics.enable", "false");
        KafkaBroker broker = KafkaBroker.startedIn(dir, plainPort, controllerPort, overrides);
        return new SecuredKafka(dir, broker, securePort);
    }

    /**
     * A CA, a broker key pair with a certificate the CA signed for 127.0.0.1, and a truststore
     * holding the CA, all PKCS12, with passwords handed to keytool through its environment.
     */
    private static void makeCertificates(Path dir) throws Exception {
        String ca = dir.resolve("ca.p12").toString();
        String brokerStore = dir.resolve("broker.p12").toString();
        String csr = dir.resolve("broker.csr").toString();
        String cert = dir.resolve("broker.crt").toString();
        String caCert = dir.resolve("ca.crt").toString();
        String trust = dir.resolve("trust.p12").toString();
        String store = "-storepass:env";
        keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=durable-journal test CA",
                "-ext", "bc:c", "-validity", "2", "-storetype", "PKCS12", "-keystore", ca, store, "KEYSTORE_PASSWORD");
        keytool(dir, "-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", brokerStore, store, "KEYSTORE_PASSWORD");
        keytool(dir, "-certreq", "-alias", "broker", "-keystore", brokerStore, store, "KEYSTORE_PASSWORD", "-file", csr);
        keytool(dir, "-gencert", "-alias", "ca", "-keystore", ca, store, "KEYSTORE_PASSWORD", "-infile", csr, "-outfile", cert,
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-rfc");
        keytool(dir, "-exportcert", "-alias", "ca", "-keystore", ca, store, "KEYSTORE_PASSWORD", "-rfc", "-file", caCert);
        keytool(dir, "-importcert", "-alias", "ca", "-file", caCert, "-keystore", brokerStore, store, "KEYSTORE_PASSWORD", "-noprompt");
        keytool(dir, "-importcert", "-alias", "broker", "-file", cert, "-keystore", brokerStore, store, "KEYSTORE_PASSWORD");
        keytool(dir, "-importcert", "-alias", "ca", "-file", caCert, "-storetype", "PKCS12", "-keystore", trust,
                "-storepass:env", "TRUSTSTORE_PASSWORD", "-noprompt");
    }

    private static void keytool(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("keytool.log").toFile()));
        builder.environment().put("KEYSTORE_PASSWORD", secret("keystore.password"));
        builder.environment().put("TRUSTSTORE_PASSWORD", secret("truststore.password"));
        Process keytool = builder.start();
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            keytool.destroyForcibly();
            throw new IllegalStateException("keytool " + args[0] + " failed: " + KafkaBroker.tail(dir.resolve("keytool.log")));
        }
    }

    /** The logger Kafka's clients print their settings to, at INFO, when one is created (secrets as "[hidden]"). */
    private static final String SETTINGS_LOGGER = "org.apache.kafka.common.config.AbstractConfig";

    /**
     * Makes Kafka's clients print their settings (the test JVM's Log4j 2 configuration, from
     * Flink's test jars, prints nothing), so that what junitSecretScan reads holds every client's
     * settings: {@code true} for this class's tests, {@code false} back to the root level. By
     * reflection: Log4j is on the test runtime classpath, not the compile one.
     */
    static void logClientSettings(boolean shown) throws Exception {
        Class<?> level = Class.forName("org.apache.logging.log4j.Level");
        Object root = Class.forName("org.apache.logging.log4j.LogManager").getMethod("getRootLogger").invoke(null);
        Object wanted = shown ? level.getField("INFO").get(null) : root.getClass().getMethod("getLevel").invoke(root);
        java.lang.reflect.Method setLevel = Class.forName("org.apache.logging.log4j.core.config.Configurator")
                .getMethod("setLevel", String.class, level);
        setLevel.invoke(null, SETTINGS_LOGGER, wanted);
    }

    String secureServers() {
        return "127.0.0.1:" + securePort;
    }

    /** The client settings of {@code user} over TLS: what a job's KafkaStoreConfig and the tool's --config file hold. */
    Map<String, String> clientSettings(String user, String password) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("security.protocol", "SASL_SSL");
        settings.put("sasl.mechanism", "PLAIN");
        // The session_token option is one PLAIN ignores: a token in a JAAS config must stay hidden too.
        settings.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                + "\" password=\"" + password + "\" session_token=\"" + secret("session.token") + "\";");
        settings.put("ssl.truststore.location", dir.resolve("trust.p12").toString());
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.password", secret("truststore.password"));
        return settings;
    }

    KafkaStoreConfig config(String topic, String user, String password) {
        KafkaStoreConfig config = KafkaStoreConfig.of(secureServers(), topic);
        for (Map.Entry<String, String> setting : clientSettings(user, password).entrySet()) {
            config = config.with(setting.getKey(), setting.getValue());
        }
        // A refused or failing call must fail within a test's patience, not Kafka's default minute.
        return config.with("request.timeout.ms", "10000").with("default.api.timeout.ms", "20000").with("max.block.ms", "20000")
                .with("delivery.timeout.ms", "20000");
    }

    /** An admin client of {@code user} on the secured listener. */
    Admin adminOf(String user, String password) {
        Properties props = new Properties();
        props.putAll(clientSettings(user, password));
        props.put("bootstrap.servers", secureServers());
        props.put("request.timeout.ms", "10000");
        props.put("default.api.timeout.ms", "20000");
        return Admin.create(props);
    }

    /** The super user's admin client (PLAINTEXT listener), for setup and for reading what the store wrote. */
    Admin admin() {
        return broker.admin();
    }

    KafkaBroker broker() {
        return broker;
    }

    private static AclBinding binding(String user, String topic, AclOperation operation) {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
    }

    /** Allows {@code user} {@code operations} on {@code topic}, and waits until the broker enforces them. */
    void allow(String user, String topic, AclOperation... operations) throws Exception {
        List<AclBinding> bindings = new ArrayList<>();
        for (AclOperation operation : operations) {
            bindings.add(binding(user, topic, operation));
        }
        try (Admin admin = admin()) {
            admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
            awaitAcls(admin, bindings, true);
        }
    }

    /** Takes {@code operation} on {@code topic} away from {@code user}, and waits until the broker no longer allows it. */
    void revoke(String user, String topic, AclOperation operation) throws Exception {
        AclBinding binding = binding(user, topic, operation);
        try (Admin admin = admin()) {
            admin.deleteAcls(List.of(binding.toFilter())).all().get(30, TimeUnit.SECONDS);
            awaitAcls(admin, List.of(binding), false);
        }
    }

    /** The broker answers describeAcls from the authorizer it enforces with: poll it until it holds (or not) the bindings. */
    private static void awaitAcls(Admin admin, List<AclBinding> bindings, boolean present) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Collection<AclBinding> now = admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS);
            if (present ? now.containsAll(bindings) : Collections.disjoint(now, bindings)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the broker's ACLs did not " + (present ? "take " : "drop ") + bindings + " within 30 s");
            }
        }
    }

    @Override
    public void close() {
        broker.destroy();
    }
}
