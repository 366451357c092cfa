// Kubernetes name rules (k8s.io/apimachinery/pkg/util/validation). Each check returns what is wrong,
// or undefined when the value is valid, so callers can name the field in their own error.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Namespaces and a few other names: at most 63 characters of lowercase letters, digits and '-'. */
export function dns1123LabelProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!DNS1123_LABEL.test(value)) {
    return "must consist of lowercase alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name')";
  }
  return undefined;
}

/** Object names: at most 253 characters of lowercase letters, digits, '-' and '.'. */
export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "must consist of lowercase alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')";
  }
  return undefined;
}

/** Label keys, annotation keys and finalizers: an optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
export function qualifiedNameProblem(value: string): string | undefined {
  const parts = value.split('/');
  if (parts.length > 2) return "must be a name with at most one '/' (e.g. 'example.com/my-name')";
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') return "prefix part must be non-empty (e.g. 'example.com/my-name')";
    const prefixProblem = dns1123SubdomainProblem(prefix);
    if (prefixProblem) return `prefix part ${prefixProblem}`;
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', 'my.name' or '123-abc')";
  }
  return undefined;
}

/** Label values: empty, or at most 63 characters of alphanumerics, '-', '_' and '.', alphanumeric at both ends. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (value !== '' && !QUALIFIED_NAME_PART.test(value)) {
    return "must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', 'my_value' or '12345')";
  }
  return undefined;
}
