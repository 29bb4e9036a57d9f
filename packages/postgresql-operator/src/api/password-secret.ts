/** The key of the password in the Secret that `spec.password` names (the seed's). */
export const PASSWORD_SECRET_KEY = 'postgresql_password';
