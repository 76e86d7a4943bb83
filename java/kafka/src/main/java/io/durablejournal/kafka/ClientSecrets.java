package io.durablejournal.kafka;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The secrets among Kafka client settings, to keep out of what the store and the tool print: the
 * values of settings Kafka itself treats as passwords (its {@code PASSWORD} config type: key and
 * store passwords, PEM keys and certificates, {@code sasl.jaas.config}) or whose name says
 * secret or token, and each password, secret or token option inside a JAAS config (a message
 * may quote that option alone).
 */
final class ClientSecrets {
    static final String HIDDEN = "[hidden]";
    /** Shorter values are not searched for: "[hidden]" in place of every "a" would hide the message instead. */
    private static final int SHORTEST = 4;
    /** A JAAS option whose value is secret: {@code password="..."}, {@code clientSecret=...}, {@code tokenValue='...'}. */
    private static final Pattern JAAS_SECRET = Pattern.compile(
            "(?i)[\\w.]*(?:password|secret|token)[\\w.]*\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)'|([^\\s;\"']+))");

    private final List<String> values;

    private ClientSecrets(List<String> values) {
        this.values = values;
    }

    static ClientSecrets of(Map<String, String> settings) {
        List<String> values = new ArrayList<>();
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            if (isSecret(setting.getKey())) {
                add(values, setting.getValue());
                Matcher inside = JAAS_SECRET.matcher(setting.getValue());
                while (inside.find()) {
                    for (int group = 1; group <= 3; group++) {
                        add(values, inside.group(group));
                    }
                }
            }
        }
        // Longest first: a secret that contains another is hidden whole.
        values.sort(Comparator.comparingInt(String::length).reversed());
        return new ClientSecrets(values);
    }

    /** Whether Kafka's clients treat the setting as a password, or its name says it is a secret. */
    static boolean isSecret(String name) {
        String lower = name.toLowerCase(java.util.Locale.ROOT);
        return lower.endsWith("password") || lower.endsWith("jaas.config") || lower.contains("secret")
                || lower.contains("token") || lower.equals("ssl.keystore.key") || lower.equals("ssl.keystore.certificate.chain")
                || lower.equals("ssl.truststore.certificates");
    }

    /** Adds a secret to look for; a flag ({@code tokenauth=true}) is not one. */
    private static void add(List<String> values, String value) {
        boolean flag = "true".equalsIgnoreCase(value) || "false".equalsIgnoreCase(value);
        if (value != null && value.length() >= SHORTEST && !flag && !values.contains(value)) {
            values.add(value);
        }
    }

    /**
     * {@code failure} itself when no message of its chain holds a secret; else a copy of the
     * chain with the secrets hidden (class names and stack traces kept), so a stack trace printed
     * later cannot show them either.
     */
    Throwable redact(Throwable failure) {
        if (failure == null || !leaks(failure)) {
            return failure;
        }
        Throwable cause = failure.getCause() == failure ? null : redact(failure.getCause());
        Redacted copy = new Redacted(failure.getClass().getName() + ": " + redact(failure.getMessage()), cause);
        copy.setStackTrace(failure.getStackTrace());
        return copy;
    }

    private boolean leaks(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (!redact(message).equals(message)) {
                return true;
            }
        }
        return false;
    }

    /** A client's exception whose message held a secret, as {@link #redact(Throwable)} copies it. */
    static final class Redacted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Redacted(String message, Throwable cause) {
            super(message, cause);
        }
    }

    String redact(String text) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (String secret : values) {
            out = out.replace(secret, HIDDEN);
        }
        return out;
    }
}
