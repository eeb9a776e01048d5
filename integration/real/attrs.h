#ifndef ATTRS_H
#define ATTRS_H
#ifdef __cplusplus
extern "C" {
#endif
int attrs_value(void);
int attrs_user_value(void);
#ifdef __cplusplus
}
#endif
#endif
